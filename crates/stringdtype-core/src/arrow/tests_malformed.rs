//! Imports of hand-built string-view arrays, malformed structs, unsupported and
//! released inputs, and streams.

use super::export::live;
use super::testing::*;
use super::*;
use crate::arena::Arena;
use crate::view::View;

fn view_bytes(len: u32, inline: &[u8], buffer: u32, offset: u32) -> Vec<u8> {
    let mut view = len.to_ne_bytes().to_vec();
    let mut rest = inline.to_vec();
    rest.resize(4, 0);
    view.extend_from_slice(&rest[..4]);
    if len as usize <= 12 {
        let mut data = inline.to_vec();
        data.resize(12, 0);
        view.truncate(4);
        view.extend_from_slice(&data);
    } else {
        view.extend_from_slice(&buffer.to_ne_bytes());
        view.extend_from_slice(&offset.to_ne_bytes());
    }
    view
}

fn view_array(views: Vec<u8>, data: &[u8], rel: &Releases) -> ArrowArray {
    let n = (views.len() / 16) as i64;
    let sizes = (data.len() as i64).to_ne_bytes().to_vec();
    foreign_array(
        (n, 0, 0),
        vec![None, Some(views), Some(data.to_vec()), Some(sizes)],
        None,
        rel,
    )
}

#[test]
fn string_views_that_cut_a_character_are_invalid() {
    // The data buffer is valid UTF-8 as a whole; views must still start and end on
    // character boundaries.
    let data = "é".repeat(20);
    let cases = [(1, 14, b"\xa9".as_slice()), (0, 15, &data.as_bytes()[..15])];
    for (offset, len, bytes) in cases {
        let rel = releases();
        let views = [
            view_bytes(14, b"\xc3\xa9\xc3\xa9", 0, 0),
            view_bytes(len, &data.as_bytes()[offset as usize..], 0, offset),
        ]
        .concat();
        let array = view_array(views, data.as_bytes(), &rel);
        let mut arena = Arena::new();
        let err = import_array(foreign_schema("vu", None, &rel), array, &mut arena, true);
        let expected = ArrowError::InvalidUtf8 {
            index: 1,
            bytes: bytes.to_vec(),
        };
        assert_eq!(err.unwrap_err(), expected);
        assert_eq!(arena.memory_usage().string_bytes, 0);
    }
}

#[test]
fn string_views_outside_their_buffers_are_errors() {
    let data = b"0123456789abcdefghij";
    let good = view_bytes(15, b"0123", 0, 0);
    let cases = [
        (
            view_bytes(15, b"0123", 1, 0),
            ArrowError::BadView { index: 1 },
        ),
        (
            view_bytes(15, b"6789", 0, 6),
            ArrowError::BadView { index: 1 },
        ),
        (
            view_bytes(15, b"0123", 0, u32::MAX),
            ArrowError::BadView { index: 1 },
        ),
        (
            view_bytes(0x8000_0000, b"", 0, 0),
            ArrowError::BadView { index: 1 },
        ),
        (
            view_bytes(3, b"\xe2\x82", 0, 0),
            ArrowError::InvalidUtf8 {
                index: 1,
                bytes: b"\xe2\x82".to_vec(),
            },
        ),
    ];
    for (bad, expected) in cases {
        let rel = releases();
        let array = view_array([good.clone(), bad].concat(), data, &rel);
        let mut arena = Arena::new();
        let err = import_array(foreign_schema("vu", None, &rel), array, &mut arena, true);
        assert_eq!(err.unwrap_err(), expected);
        assert_eq!(
            arena.memory_usage().string_bytes,
            0,
            "the first element is given back"
        );
        assert_eq!(count(&rel), 2);
    }
    let rel = releases();
    let array = view_array(good, data, &rel);
    let mut arena = Arena::new();
    let views = import_array(foreign_schema("vu", None, &rel), array, &mut arena, true).unwrap();
    assert_eq!(arena.get(&views[0]).unwrap(), b"0123456789abcde");
}

#[test]
fn malformed_structs_are_errors() {
    let values: [Option<&[u8]>; 2] = [Some(b"ab"), Some(b"cd")];
    let mut decreasing = offset_buffers(&values, false);
    decreasing[1] = Some([0i32, 3, 2].iter().flat_map(|o| o.to_ne_bytes()).collect());
    let cases: [(&str, Header, Buffers); 7] = [
        ("u", (2, 0, 0), decreasing),
        ("u", (-1, 0, 0), offset_buffers(&values, false)),
        ("u", (2, 0, 0), offset_buffers(&values, false)[1..].to_vec()),
        (
            "u",
            (2, 0, 1),
            vec![
                None,
                offset_buffers(&values, false)[1].clone(),
                Some(b"abcd".to_vec()),
            ],
        ),
        ("vu", (1, 0, 0), vec![None, Some(vec![0; 16])]),
        ("u", (2, 0, 0), vec![None, None, Some(b"abcd".to_vec())]),
        (
            "vu",
            (i64::MAX, 0, 0),
            vec![None, Some(vec![0; 16]), Some(vec![])],
        ),
    ];
    for (i, (format, header, buffers)) in cases.into_iter().enumerate() {
        let rel = releases();
        let array = foreign_array(header, buffers, None, &rel);
        let err = import_array(
            foreign_schema(format, None, &rel),
            array,
            &mut Arena::new(),
            true,
        );
        assert!(
            matches!(err, Err(ArrowError::Malformed(_))),
            "case {i}: {err:?}"
        );
        assert_eq!(count(&rel), 2, "case {i}");
    }
}

#[test]
fn unsupported_and_released_inputs_are_errors() {
    let rel = releases();
    let array = foreign_array((0, 0, 0), vec![None, None], None, &rel);
    let err = import_array(
        foreign_schema("i", None, &rel),
        array,
        &mut Arena::new(),
        true,
    );
    assert_eq!(err.unwrap_err(), ArrowError::UnsupportedFormat("i".into()));
    assert_eq!(count(&rel), 2);
    let err = import_array(
        export_schema(),
        ArrowArray::empty(),
        &mut Arena::new(),
        true,
    );
    assert_eq!(err.unwrap_err(), ArrowError::Released("array"));
    let err = import_array(
        ArrowSchema::empty(),
        ArrowArray::empty(),
        &mut Arena::new(),
        true,
    );
    assert_eq!(err.unwrap_err(), ArrowError::Released("schema"));
}

#[test]
fn import_into_checks_the_destination_length() {
    let mut arena = Arena::new();
    let array = export_array(&[View::EMPTY; 3], &arena).unwrap();
    let mut out = [View::NA; 2];
    let err = import_array_into(export_schema(), array, &mut out, &mut arena, true);
    assert!(matches!(err, Err(ArrowError::Malformed(_))));
    let array = export_array(&[View::EMPTY; 2], &arena).unwrap();
    import_array_into(export_schema(), array, &mut out, &mut arena, true).unwrap();
    assert_eq!(out, [View::EMPTY; 2]);
}

#[test]
fn streams_concatenate_their_arrays() {
    let live_before = live::count();
    let mut source = Arena::new();
    let chunk = |range: std::ops::Range<i32>, arena: &mut Arena| {
        let views: Vec<View> = range
            .map(|i| {
                arena
                    .store(format!("chunked string {i:04}").as_bytes())
                    .unwrap()
            })
            .collect();
        export_array(&views, arena).unwrap()
    };
    let arrays = vec![
        chunk(0..3, &mut source),
        chunk(3..3, &mut source),
        chunk(3..5, &mut source),
    ];
    let rel = releases();
    let raw = foreign_stream(arrays, None, &rel);
    // SAFETY: `raw` is a live stream from `Box::into_raw`; freed after the move.
    let reader = unsafe { ArrowStreamReader::from_raw(raw) }.unwrap();
    // SAFETY: as above; the box is released now and freed here.
    drop(unsafe { Box::from_raw(raw) });
    let mut arena = Arena::new();
    let views = reader.read_all(&mut arena, false).unwrap();
    let got: Vec<_> = strings(&views, &arena).into_iter().flatten().collect();
    let expected: Vec<_> = (0..5)
        .map(|i| format!("chunked string {i:04}").into_bytes())
        .collect();
    assert_eq!(got, expected);
    assert_eq!(count(&rel), 1);
    assert_eq!(live::count(), live_before);
}

#[test]
fn stream_errors_carry_the_message_and_release_everything() {
    let live_before = live::count();
    let mut source = Arena::new();
    let long = source.store(b"a string long enough for the arena").unwrap();
    let arrays = vec![
        export_array(&[long], &source).unwrap(),
        export_array(&[View::NA], &source).unwrap(),
    ];
    let rel = releases();
    let raw = foreign_stream(arrays, Some("disk on fire"), &rel);
    // SAFETY: as in `streams_concatenate_their_arrays`.
    let mut reader = unsafe { ArrowStreamReader::from_raw(raw) }.unwrap();
    // SAFETY: as above.
    drop(unsafe { Box::from_raw(raw) });
    let mut arena = Arena::new();
    assert_eq!(
        reader.next_array(&mut arena, false).unwrap().unwrap().len(),
        1
    );
    let err = reader.next_array(&mut arena, false).unwrap_err();
    assert_eq!(
        err,
        ArrowError::UnexpectedNull { index: 1 },
        "indices count across arrays"
    );
    let err = reader.read_all(&mut arena, false).unwrap_err();
    assert_eq!(
        err,
        ArrowError::Stream {
            code: 5,
            message: "disk on fire".into()
        }
    );
    assert_eq!(count(&rel), 1);
    // The first array's buffer was adopted: it is released with the arena.
    drop(arena);
    assert_eq!(live::count(), live_before);
}

#[test]
fn an_empty_string_between_nulls_may_sit_inside_a_character() {
    // "é" split by the offsets of two nulls around an empty string: only the empty
    // string is read, and it is valid wherever it sits.
    let offsets: Vec<u8> = [0i32, 1, 1, 2]
        .iter()
        .flat_map(|o| o.to_ne_bytes())
        .collect();
    for format in ["u", "U"] {
        let offsets = if format == "u" {
            offsets.clone()
        } else {
            [0i64, 1, 1, 2]
                .iter()
                .flat_map(|o| o.to_ne_bytes())
                .collect()
        };
        let rel = releases();
        let buffers = vec![
            Some(bitmap(&[false, true, false])),
            Some(offsets),
            Some("é".as_bytes().to_vec()),
        ];
        let array = foreign_array((3, 0, 2), buffers, None, &rel);
        let mut arena = Arena::new();
        let views = import_array(foreign_schema(format, None, &rel), array, &mut arena, true);
        assert_eq!(views.unwrap(), [View::NA, View::EMPTY, View::NA]);
    }
}
