//! Round trips through the C structs, hand-built foreign arrays and malformed input.

use std::sync::Arc;

use super::export::live;
use super::testing::*;
use super::*;
use crate::arena::Arena;
use crate::view::View;

fn sample() -> Vec<Option<Vec<u8>>> {
    let mut values: Vec<Option<Vec<u8>>> = vec![
        Some(b"".to_vec()),
        None,
        Some(b"twelve bytes".to_vec()),
        Some(b"thirteen byte".to_vec()),
        Some("naïve café – ünïcödé, long enough".as_bytes().to_vec()),
        Some(b"emb\0dded NUL, long".to_vec()),
    ];
    // Enough long strings for several arena chunks, and one with a chunk of its own.
    values.extend((0..400).map(|i| Some(vec![b'a' + (i % 26) as u8; 13 + i % 90])));
    values.push(Some(vec![b'z'; crate::arena::DEDICATED_THRESHOLD + 1]));
    values.push(None);
    values
}

#[test]
fn round_trip_through_the_c_structs() {
    let live_before = live::count();
    let expected = sample();
    let mut source = Arena::new();
    let views: Vec<View> = expected
        .iter()
        .map(|v| v.as_ref().map_or(View::NA, |v| source.store(v).unwrap()))
        .collect();
    assert!(source.memory_usage().chunks >= 3);
    let array = export_array(&views, &source).unwrap();
    assert_eq!(array.null_count, 2);
    let (schema, array) = through_pointers(export_schema(), array);
    let mut target = Arena::new();
    let imported = import_array(schema, array, &mut target, true).unwrap();
    assert_eq!(strings(&imported, &target), expected);
    // The target may have adopted the exported buffers: the array is released with it.
    drop(target);
    assert_eq!(live::count(), live_before);
    for share in source.share_chunks() {
        let (chunk, _) = share.as_shared().expect("no holes");
        assert_eq!(Arc::strong_count(chunk), 2, "only the arena and this share");
    }
}

#[test]
fn strided_export_round_trips() {
    let mut arena = Arena::new();
    let views: Vec<View> = (0..10)
        .map(|i| {
            arena
                .store(format!("element number {i}").as_bytes())
                .unwrap()
        })
        .collect();
    let array = export_views(views.iter().copied().step_by(3), &arena).unwrap();
    let mut target = Arena::new();
    let imported = import_array(export_schema(), array, &mut target, false).unwrap();
    let got: Vec<_> = strings(&imported, &target).into_iter().flatten().collect();
    assert_eq!(
        got,
        [
            "element number 0",
            "element number 3",
            "element number 6",
            "element number 9"
        ]
        .map(|s| s.as_bytes().to_vec())
    );
}

#[test]
fn empty_arrays_round_trip() {
    let arena = Arena::new();
    let array = export_array(&[], &arena).unwrap();
    assert_eq!((array.length, array.n_buffers), (0, 3));
    let imported = import_array(export_schema(), array, &mut Arena::new(), false).unwrap();
    assert!(imported.is_empty());
}

#[test]
fn a_moved_array_is_released_once_through_the_copy() {
    let live_before = live::count();
    let mut arena = Arena::new();
    let view = arena.store(&[b'q'; 64]).unwrap();
    let mut array = export_array(&[view, View::NA], &arena).unwrap();
    let mut schema = export_schema();
    // SAFETY: both structs are live and ours; the originals are marked released.
    let (moved_schema, moved_array) = unsafe {
        (
            ArrowSchema::from_raw(&mut schema),
            ArrowArray::from_raw(&mut array),
        )
    };
    assert!(array.is_released() && schema.is_released());
    drop(array);
    assert_eq!(live::count(), live_before + 1);
    // The array and its schema are released independently, in any order.
    drop(moved_array);
    assert_eq!(live::count(), live_before);
    drop(moved_schema);
    assert_eq!(
        Arc::strong_count(arena.share_chunks()[0].as_shared().unwrap().0),
        2
    );
}

#[test]
fn string_arrays_with_offset_and_nulls() {
    let values: [Option<&[u8]>; 5] = [
        Some(b"zero"),
        Some(b"one"),
        None,
        Some(b"a long string of many bytes"),
        Some("fünf".as_bytes()),
    ];
    for (format, wide) in [("u", false), ("U", true)] {
        let rel = releases();
        let schema = foreign_schema(format, None, &rel);
        let array = foreign_array((4, 1, 1), offset_buffers(&values, wide), None, &rel);
        let mut arena = Arena::new();
        let views = import_array(schema, array, &mut arena, true).unwrap();
        let expected: Vec<_> = values[1..].iter().map(|v| v.map(<[u8]>::to_vec)).collect();
        assert_eq!(strings(&views, &arena), expected, "{format}");
        assert_eq!(count(&rel), 2);
    }
}

#[test]
fn unknown_null_count_reads_the_bitmap() {
    let rel = releases();
    let values: [Option<&[u8]>; 2] = [None, Some(b"x")];
    let array = foreign_array((2, 0, -1), offset_buffers(&values, false), None, &rel);
    let mut arena = Arena::new();
    let views = import_array(foreign_schema("u", None, &rel), array, &mut arena, true).unwrap();
    assert_eq!(views[0], View::NA);
}

fn dictionary_array(
    keys: &str,
    key_bytes: Vec<u8>,
    valid: &[bool],
    rel: &Releases,
) -> (ArrowSchema, ArrowArray) {
    let values: [Option<&[u8]>; 3] = [Some(b"x"), None, Some(b"a long dictionary value")];
    let dictionary = foreign_array((3, 0, 1), offset_buffers(&values, false), None, rel);
    let array = foreign_array(
        (valid.len() as i64, 0, -1),
        vec![Some(bitmap(valid)), Some(key_bytes)],
        Some(dictionary),
        rel,
    );
    let schema = foreign_schema(keys, Some(foreign_schema("u", None, rel)), rel);
    (schema, array)
}

#[test]
fn dictionary_arrays_store_each_use_of_a_value() {
    let long: &[u8] = b"a long dictionary value";
    let expected = vec![
        Some(long.to_vec()),
        Some(b"x".to_vec()),
        None,
        Some(long.to_vec()),
        None,
    ];
    let valid = [true, true, true, true, false];
    let keys_i8: Vec<u8> = [2i8, 0, 1, 2, -1]
        .iter()
        .flat_map(|k| k.to_ne_bytes())
        .collect();
    let keys_u64: Vec<u8> = [2u64, 0, 1, 2, 99]
        .iter()
        .flat_map(|k| k.to_ne_bytes())
        .collect();
    for (format, keys) in [("c", keys_i8), ("L", keys_u64)] {
        let rel = releases();
        let (schema, array) = dictionary_array(format, keys, &valid, &rel);
        let mut arena = Arena::new();
        let views = import_array(schema, array, &mut arena, true).unwrap();
        assert_eq!(strings(&views, &arena), expected, "{format}");
        assert_ne!(
            views[0].location(),
            views[3].location(),
            "every element owns its bytes"
        );
        assert_eq!(count(&rel), 4, "schema, value schema, array and dictionary");
    }
}

#[test]
fn dictionary_of_string_views() {
    let mut source = Arena::new();
    let values = [
        source.store(b"first long dictionary value").unwrap(),
        View::NA,
    ];
    let dictionary = export_array(&values, &source).unwrap();
    let rel = releases();
    let keys: Vec<u8> = [1i16, 0, 0].iter().flat_map(|k| k.to_ne_bytes()).collect();
    let array = foreign_array((3, 0, 0), vec![None, Some(keys)], Some(dictionary), &rel);
    let schema = foreign_schema("s", Some(export_schema()), &rel);
    let mut arena = Arena::new();
    let views = import_array(schema, array, &mut arena, true).unwrap();
    let first = Some(b"first long dictionary value".to_vec());
    assert_eq!(strings(&views, &arena), vec![None, first.clone(), first]);
}

#[test]
fn dictionary_keys_outside_the_dictionary_are_errors() {
    let rel = releases();
    let keys: Vec<u8> = [0i32, 3].iter().flat_map(|k| k.to_ne_bytes()).collect();
    let (schema, array) = dictionary_array("i", keys, &[true, true], &rel);
    let mut arena = Arena::new();
    let err = import_array(schema, array, &mut arena, true).unwrap_err();
    assert_eq!(
        err,
        ArrowError::BadDictionaryKey {
            index: 1,
            key: 3,
            len: 3
        }
    );
    assert_eq!(count(&rel), 4);
}

#[test]
fn nulls_without_na_are_errors_and_leave_the_arena_empty() {
    let rel = releases();
    let values: [Option<&[u8]>; 3] = [
        Some(b"a string that is long"),
        Some(b"another long one"),
        None,
    ];
    let array = foreign_array((3, 0, 1), offset_buffers(&values, false), None, &rel);
    let mut arena = Arena::new();
    let err = import_array(foreign_schema("u", None, &rel), array, &mut arena, false).unwrap_err();
    assert_eq!(err, ArrowError::UnexpectedNull { index: 2 });
    assert!(err.to_string().contains("element 2"));
    assert_eq!(arena.memory_usage().string_bytes, 0);
    assert_eq!(count(&rel), 2);
}

#[test]
fn invalid_utf8_names_the_element() {
    /// Values, offset, the bad element, its bytes up to the end of the first bad sequence.
    type Case<'a> = (&'a [Option<&'a [u8]>], i64, usize, &'a [u8]);
    let cases: [Case; 3] = [
        (&[Some(b"fine"), Some(b"bad \xff byte")], 0, 1, b"bad \xff"),
        // "é" split between two elements: each half is invalid, the whole is not.
        (&[Some(b"ok"), Some(b"\xc3"), Some(b"\xa9")], 0, 1, b"\xc3"),
        (
            &[Some(b"\xffskipped"), Some(b"x"), Some(b"y"), Some(b"\xc0")],
            1,
            2,
            b"\xc0",
        ),
    ];
    for (values, offset, index, bytes) in cases {
        for wide in [false, true] {
            let rel = releases();
            let length = values.len() as i64 - offset;
            let array = foreign_array(
                (length, offset, 0),
                offset_buffers(values, wide),
                None,
                &rel,
            );
            let schema = foreign_schema(if wide { "U" } else { "u" }, None, &rel);
            let err = import_array(schema, array, &mut Arena::new(), true).unwrap_err();
            let expected = ArrowError::InvalidUtf8 {
                index,
                bytes: bytes.to_vec(),
            };
            assert_eq!(err, expected, "{values:?}");
            assert_eq!(count(&rel), 2);
        }
    }
}

#[test]
fn invalid_dictionary_values_fail_only_where_used() {
    let rel = releases();
    let values: [Option<&[u8]>; 2] = [Some(b"fine"), Some(b"not \xe2\x82 UTF-8")];
    let dictionary = foreign_array((2, 0, 0), offset_buffers(&values, false), None, &rel);
    let keys = [0i8, 0, 1].iter().map(|&k| k as u8).collect();
    let array = foreign_array((3, 0, 0), vec![None, Some(keys)], Some(dictionary), &rel);
    let schema = foreign_schema("c", Some(foreign_schema("u", None, &rel)), &rel);
    let mut arena = Arena::new();
    let err = import_array(schema, array, &mut arena, true).unwrap_err();
    let expected = ArrowError::InvalidUtf8 {
        index: 2,
        bytes: b"not \xe2\x82".to_vec(),
    };
    assert_eq!(err, expected);
    assert_eq!(count(&rel), 4);
}

#[test]
fn invalid_bytes_under_a_null_are_ignored() {
    let rel = releases();
    let mut buffers = offset_buffers(&[Some(b"ok"), Some(b"\xff\xfe"), Some(b"fine")], false);
    buffers[0] = Some(bitmap(&[true, false, true]));
    let array = foreign_array((3, 0, 1), buffers, None, &rel);
    let mut arena = Arena::new();
    let views = import_array(foreign_schema("u", None, &rel), array, &mut arena, true).unwrap();
    assert_eq!(strings(&views, &arena)[1], None);
}
