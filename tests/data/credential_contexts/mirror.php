<?php
// Mirrors the nightly export to the archive host.
$ch = curl_init('https://archive.example.com/upload');
curl_setopt($ch, CURLOPT_USERPWD, 'bob:${env:API_KEY}');
curl_setopt($ch, CURLOPT_PROXYUSERPWD, 'mirror:xj4EHsuVRCJb9oJNk0V8');
curl_setopt($ch, CURLOPT_RETURNTRANSFER, true);
$result = curl_exec($ch);
